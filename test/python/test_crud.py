"""Typed CRUD through CoreV1Api, AppsV1Api, BatchV1Api and RbacAuthorizationV1Api."""
import json

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException


def test_configmap_crud_and_conflict(api_client, namespace):
    core = client.CoreV1Api(api_client)
    created = core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="settings", labels={"app": "web"}), data={"a": "1"}))
    assert created.metadata.uid and created.metadata.resource_version
    assert created.data == {"a": "1"}

    created.data["b"] = "2"
    replaced = core.replace_namespaced_config_map("settings", namespace, created)
    assert replaced.data == {"a": "1", "b": "2"}
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)

    # The old resourceVersion is a stale precondition: 409 Conflict with kube's message.
    created.data["c"] = "3"
    with pytest.raises(ApiException) as err:
        core.replace_namespaced_config_map("settings", namespace, created)
    assert err.value.status == 409
    body = json.loads(err.value.body)
    assert body["reason"] == "Conflict"
    assert "the object has been modified; please apply your changes to the latest version and try again" in body["message"]

    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings")))
    assert err.value.status == 409
    assert json.loads(err.value.body)["reason"] == "AlreadyExists"

    status = core.delete_namespaced_config_map("settings", namespace)
    assert status.status == "Success"
    with pytest.raises(ApiException) as err:
        core.read_namespaced_config_map("settings", namespace)
    assert err.value.status == 404
    assert json.loads(err.value.body)["message"] == 'configmaps "settings" not found'


def test_dry_run_persists_nothing(api_client, namespace):
    core = client.CoreV1Api(api_client)
    would_be = core.create_namespaced_secret(namespace, client.V1Secret(
        metadata=client.V1ObjectMeta(name="dry"), string_data={"k": "v"}), dry_run="All")
    assert would_be.metadata.name == "dry"
    assert would_be.data == {"k": "dg=="}
    with pytest.raises(ApiException) as err:
        core.read_namespaced_secret("dry", namespace)
    assert err.value.status == 404


def test_selectors_and_paged_lists(api_client, namespace):
    core = client.CoreV1Api(api_client)
    for i in range(7):
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=f"cm-{i}", labels={"parity": "even" if i % 2 == 0 else "odd"})))
    even = core.list_namespaced_config_map(namespace, label_selector="parity=even")
    assert sorted(c.metadata.name for c in even.items) == ["cm-0", "cm-2", "cm-4", "cm-6"]
    by_name = core.list_namespaced_config_map(namespace, field_selector="metadata.name=cm-3")
    assert [c.metadata.name for c in by_name.items] == ["cm-3"]

    names = []
    page = core.list_namespaced_config_map(namespace, label_selector="parity", limit=3)
    first_rv = page.metadata.resource_version
    assert page.metadata.remaining_item_count is None  # a label selector hides the count
    names += [c.metadata.name for c in page.items]
    while page.metadata._continue:
        page = core.list_namespaced_config_map(namespace, label_selector="parity", limit=3, _continue=page.metadata._continue)
        assert page.metadata.resource_version == first_rv
        names += [c.metadata.name for c in page.items]
    assert names == [f"cm-{i}" for i in range(7)]

    unfiltered = core.list_namespaced_config_map(namespace, limit=2)
    # kube-root-ca.crt is in every namespace too.
    assert unfiltered.metadata.remaining_item_count == 6


def test_resource_version_match(api_client, namespace):
    core = client.CoreV1Api(api_client)
    cm = core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="rv")))
    rv = cm.metadata.resource_version
    exact = core.list_namespaced_config_map(namespace, resource_version=rv, resource_version_match="Exact")
    assert exact.metadata.resource_version == rv
    assert "rv" in [c.metadata.name for c in exact.items]
    newer = core.list_namespaced_config_map(namespace, resource_version=rv, resource_version_match="NotOlderThan")
    assert int(newer.metadata.resource_version) >= int(rv)
    with pytest.raises(ApiException) as err:
        core.list_namespaced_config_map(namespace, resource_version_match="Exact")
    assert err.value.status == 400 or err.value.status == 422


def test_apps_batch_rbac_typed_apis(api_client, namespace):
    apps = client.AppsV1Api(api_client)
    deployment = apps.create_namespaced_deployment(namespace, client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx")])))))
    # Defaults as 1.27 sets them.
    assert deployment.spec.strategy.type == "RollingUpdate"
    assert deployment.spec.strategy.rolling_update.max_surge == "25%"
    assert deployment.spec.revision_history_limit == 10
    assert deployment.spec.progress_deadline_seconds == 600
    scale = apps.read_namespaced_deployment_scale("web", namespace)
    assert scale.spec.replicas == 2
    apps.patch_namespaced_deployment_scale("web", namespace, {"spec": {"replicas": 3}})
    assert apps.read_namespaced_deployment("web", namespace).spec.replicas == 3

    batch = client.BatchV1Api(api_client)
    job = batch.create_namespaced_job(namespace, client.V1Job(
        metadata=client.V1ObjectMeta(name="once"),
        spec=client.V1JobSpec(template=client.V1PodTemplateSpec(spec=client.V1PodSpec(
            restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")])))))
    assert job.spec.backoff_limit == 6
    assert job.spec.completions == 1
    uid = job.metadata.uid
    assert job.spec.selector.match_labels == {"batch.kubernetes.io/controller-uid": uid}
    labels = job.spec.template.metadata.labels
    assert labels["batch.kubernetes.io/controller-uid"] == uid and labels["controller-uid"] == uid
    assert labels["batch.kubernetes.io/job-name"] == "once" and labels["job-name"] == "once"

    rbac = client.RbacAuthorizationV1Api(api_client)
    rbac.create_namespaced_role(namespace, client.V1Role(
        metadata=client.V1ObjectMeta(name="reader"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["configmaps"], verbs=["get", "list"])]))
    binding = rbac.create_namespaced_role_binding(namespace, client.V1RoleBinding(
        metadata=client.V1ObjectMeta(name="reader"),
        role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name="reader"),
        subjects=[client.V1Subject(kind="User", name="py-nobody", api_group="rbac.authorization.k8s.io")]))
    assert binding.role_ref.name == "reader"
    assert [r.metadata.name for r in rbac.list_namespaced_role(namespace).items] == ["reader"]
