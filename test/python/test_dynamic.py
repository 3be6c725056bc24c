"""Discovery through the dynamic client; a CRD and its objects through CustomObjectsApi and
the dynamic client, status and scale subresources included."""
import time
import uuid

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException


def test_discovery_lists_every_served_group(api_client, dyn):
    groups = client.ApisApi(api_client).get_api_versions()
    names = {g.name for g in groups.groups}
    for expected in ["apps", "batch", "rbac.authorization.k8s.io", "apiextensions.k8s.io", "coordination.k8s.io",
                     "networking.k8s.io", "policy", "storage.k8s.io", "admissionregistration.k8s.io"]:
        assert expected in names
    # The built-in groups carry the stock names; the product's own object history group is
    # the one group named after it in every flavor.
    assert {n for n in names if n.endswith("orch.io")} == {"history.orch.io"}
    deployments = dyn.resources.get(api_version="apps/v1", kind="Deployment")
    assert deployments.namespaced is True
    assert deployments.name == "deployments"
    assert "scale" in deployments.subresources
    nodes = dyn.resources.get(api_version="v1", kind="Node")
    assert nodes.namespaced is False


@pytest.fixture
def widgets_crd(api_client):
    ext = client.ApiextensionsV1Api(api_client)
    group = f"g{uuid.uuid4().hex[:6]}.example.com"
    name = f"widgets.{group}"
    ext.create_custom_resource_definition(client.V1CustomResourceDefinition(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1CustomResourceDefinitionSpec(
            group=group, scope="Namespaced",
            names=client.V1CustomResourceDefinitionNames(plural="widgets", singular="widget", kind="Widget", list_kind="WidgetList"),
            versions=[client.V1CustomResourceDefinitionVersion(
                name="v1", served=True, storage=True,
                subresources=client.V1CustomResourceSubresources(
                    status={},
                    scale=client.V1CustomResourceSubresourceScale(spec_replicas_path=".spec.replicas", status_replicas_path=".status.replicas")),
                schema=client.V1CustomResourceValidation(open_apiv3_schema=client.V1JSONSchemaProps(
                    type="object",
                    properties={
                        "spec": client.V1JSONSchemaProps(type="object", properties={
                            "replicas": client.V1JSONSchemaProps(type="integer", minimum=0),
                            "color": client.V1JSONSchemaProps(type="string")}),
                        "status": client.V1JSONSchemaProps(type="object", properties={
                            "replicas": client.V1JSONSchemaProps(type="integer")})})))])))
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        crd = ext.read_custom_resource_definition(name)
        if any(c.type == "Established" and c.status == "True" for c in (crd.status.conditions or [])):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the CRD did not become Established")
    yield group
    ext.delete_custom_resource_definition(name)


def test_custom_objects_api_with_status_and_scale(api_client, namespace, widgets_crd):
    group = widgets_crd
    custom = client.CustomObjectsApi(api_client)
    created = custom.create_namespaced_custom_object(group, "v1", namespace, "widgets", {
        "apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w1"},
        "spec": {"replicas": 1, "color": "red", "unknown": "pruned"}, "status": {"replicas": 9}})
    assert created["spec"] == {"replicas": 1, "color": "red"}
    assert "status" not in created  # status is ignored on create with the status subresource

    status = custom.patch_namespaced_custom_object_status(group, "v1", namespace, "widgets", "w1", {"status": {"replicas": 1}})
    assert status["status"] == {"replicas": 1}
    scale = custom.get_namespaced_custom_object_scale(group, "v1", namespace, "widgets", "w1")
    assert scale["kind"] == "Scale" and scale["spec"]["replicas"] == 1 and scale["status"]["replicas"] == 1
    custom.patch_namespaced_custom_object_scale(group, "v1", namespace, "widgets", "w1", {"spec": {"replicas": 4}})
    assert custom.get_namespaced_custom_object(group, "v1", namespace, "widgets", "w1")["spec"]["replicas"] == 4

    with pytest.raises(ApiException) as err:
        custom.patch_namespaced_custom_object(group, "v1", namespace, "widgets", "w1", {"spec": {"replicas": -1}})
    assert err.value.status == 422
    assert "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0" in err.value.body


def test_dynamic_client_on_a_custom_resource(dyn, namespace, widgets_crd):
    group = widgets_crd
    dyn.resources.invalidate_cache()
    widgets = dyn.resources.get(api_version=f"{group}/v1", kind="Widget")
    widgets.create(body={"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "d1"}, "spec": {"color": "blue"}}, namespace=namespace)
    listed = widgets.get(namespace=namespace)
    assert [w.metadata.name for w in listed.items] == ["d1"]
    patched = widgets.patch(name="d1", namespace=namespace, body={"spec": {"color": "green"}}, content_type="application/merge-patch+json")
    assert patched.spec.color == "green"
    widgets.delete(name="d1", namespace=namespace)
    assert widgets.get(namespace=namespace).items == []
