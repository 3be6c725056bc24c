"""utils.create_from_yaml with several documents, and its FailToCreateError path."""
import json
import os
import tempfile

import pytest
from kubernetes import client, utils

MANIFEST = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  k: v
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: second
spec:
  selector:
    matchLabels: {app: second}
  template:
    metadata:
      labels: {app: second}
    spec:
      containers:
      - name: c
        image: nginx
---
apiVersion: v1
kind: Service
metadata:
  name: third
spec:
  ports:
  - port: 80
"""


def test_create_from_yaml_multi_document_then_conflicts(api_client, namespace):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(MANIFEST)
        path = f.name
    try:
        created = utils.create_from_yaml(api_client, path, namespace=namespace)
        kinds = [objs[0].kind for objs in created]
        assert kinds == ["ConfigMap", "Deployment", "Service"]
        assert client.CoreV1Api(api_client).read_namespaced_service("third", namespace).spec.cluster_ip

        with pytest.raises(utils.FailToCreateError) as err:
            utils.create_from_yaml(api_client, path, namespace=namespace)
        failures = err.value.api_exceptions
        assert [e.status for e in failures] == [409, 409, 409]
        bodies = [json.loads(e.body) for e in failures]
        assert [b["reason"] for b in bodies] == ["AlreadyExists"] * 3
        assert bodies[0]["message"] == 'configmaps "first" already exists'
        assert bodies[1]["details"] == {"name": "second", "group": "apps", "kind": "deployments"}
        # The client compares bodies as text: the Status in kube's field order.
        body = failures[0].body.decode() if isinstance(failures[0].body, bytes) else failures[0].body
        # Clients compare bodies as text: the Status in kube's field order.
        assert body == (
            '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
            '"message":"configmaps \\"first\\" already exists","reason":"AlreadyExists",'
            '"details":{"name":"first","kind":"configmaps"},"code":409}\n')
    finally:
        os.unlink(path)
