"""Strategic merge, JSON merge and JSON patch through the typed API; server-side apply
through the dynamic client, with a conflict naming the manager and a forced apply."""
import json

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException


def _deployment(name, containers):
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": name}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": name}),
                spec=client.V1PodSpec(containers=containers))))


def test_strategic_merge_patch_merges_containers_by_name(api_client, namespace):
    apps = client.AppsV1Api(api_client)
    apps.create_namespaced_deployment(namespace, _deployment("smp", [
        client.V1Container(name="a", image="nginx:1"), client.V1Container(name="b", image="redis:1")]))
    # The typed patch's default content type is strategic merge: the list merges by name.
    patched = apps.patch_namespaced_deployment("smp", namespace, {
        "spec": {"template": {"spec": {"containers": [{"name": "b", "image": "redis:2"}]}}}})
    images = {c.name: c.image for c in patched.spec.template.spec.containers}
    assert images == {"a": "nginx:1", "b": "redis:2"}


def test_json_merge_patch_replaces_lists(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="m", labels={"x": "1", "y": "2"}), data={"k": "v"}))
    api_client.set_default_header("Content-Type", "application/merge-patch+json")
    try:
        patched = core.patch_namespaced_config_map("m", namespace, {"metadata": {"labels": {"x": None}}, "data": {"k2": "v2"}})
    finally:
        api_client.default_headers.pop("Content-Type", None)
    assert patched.metadata.labels == {"y": "2"}
    assert patched.data == {"k": "v", "k2": "v2"}


def test_json_patch_with_a_failing_test_op_changes_nothing(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="j"), data={"k": "v"}))
    # A list body makes the typed client send application/json-patch+json.
    patched = core.patch_namespaced_config_map("j", namespace, [
        {"op": "test", "path": "/data/k", "value": "v"},
        {"op": "add", "path": "/data/n", "value": "1"}])
    assert patched.data == {"k": "v", "n": "1"}
    with pytest.raises(ApiException) as err:
        core.patch_namespaced_config_map("j", namespace, [
            {"op": "test", "path": "/data/k", "value": "other"},
            {"op": "remove", "path": "/data/k"}])
    assert err.value.status == 422
    assert core.read_namespaced_config_map("j", namespace).data == {"k": "v", "n": "1"}


def test_server_side_apply_conflict_then_force(dyn, namespace):
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "namespace": namespace}, "data": {"owner": "alice"}}
    # python3-kubernetes 22 sends an apply body only when it is already serialized.
    def apply(manager, **kwargs):
        return cms.server_side_apply(body=json.dumps(manifest), name="ssa", namespace=namespace, field_manager=manager, **kwargs)

    applied = apply("alice")
    assert applied.data.owner == "alice"
    managers = [(m.manager, m.operation) for m in applied.metadata.managedFields]
    assert ("alice", "Apply") in managers

    manifest["data"]["owner"] = "bob"
    with pytest.raises(ApiException) as err:
        apply("bob")
    assert err.value.status == 409
    body = json.loads(err.value.body)
    assert body["reason"] == "Conflict"
    assert body["message"] == 'Apply failed with 1 conflict: conflict with "alice": .data.owner'
    assert body["details"]["causes"] == [{"reason": "FieldManagerConflict", "message": 'conflict with "alice"', "field": ".data.owner"}]

    forced = apply("bob", force_conflicts=True)
    assert forced.data.owner == "bob"
    managed = forced.to_dict()["metadata"]["managedFields"]
    owners = {m["manager"] for m in managed if m["operation"] == "Apply" and "f:owner" in m["fieldsV1"].get("f:data", {})}
    assert owners == {"bob"}
