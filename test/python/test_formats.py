"""Raw reads: YAML with _preload_content=False, and the Table representation."""
import json

import yaml
from kubernetes import client


def test_yaml_read_of_an_object(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="y"), data={"key": "value"}))
    resp = api_client.call_api(f"/api/v1/namespaces/{namespace}/configmaps/y", "GET",
                               header_params={"Accept": "application/yaml"}, _preload_content=False, auth_settings=["BearerToken"])
    raw = resp[0]
    assert raw.status == 200
    assert raw.getheader("Content-Type") == "application/yaml"
    text = raw.data.decode()
    assert text.startswith("apiVersion: v1\n")
    doc = yaml.safe_load(text)
    assert doc["kind"] == "ConfigMap"
    assert doc["data"] == {"key": "value"}
    assert doc["metadata"]["namespace"] == namespace


def test_table_representation(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="t"), data={"a": "1", "b": "2"}))
    resp = api_client.call_api(f"/api/v1/namespaces/{namespace}/configmaps", "GET",
                               header_params={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
                               _preload_content=False, auth_settings=["BearerToken"])
    raw = resp[0]
    assert raw.status == 200
    table = json.loads(raw.data)
    assert table["kind"] == "Table"
    assert table["apiVersion"] == "meta.k8s.io/v1"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
    rows = {r["cells"][0]: r["cells"][1] for r in table["rows"]}
    assert rows["t"] == 2
    assert rows["kube-root-ca.crt"] == 1
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
