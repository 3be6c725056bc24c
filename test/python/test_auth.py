"""Credentials as Python users load them, and the errors they get back."""
import json

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from conftest import token_client


def test_load_kube_config_client_certificate(kubeconfig_path):
    config.load_kube_config(config_file=kubeconfig_path)
    version = client.VersionApi().get_code()
    assert version.major == "1"
    assert version.git_version.startswith("v1.27.")
    namespaces = [n.metadata.name for n in client.CoreV1Api().list_namespace().items]
    assert "kube-system" in namespaces and "default" in namespaces


def test_token_user_is_authenticated(api_client, admin_token):
    api = client.CoreV1Api(token_client(api_client, admin_token))
    listed = api.list_namespace()
    assert any(n.metadata.name == "default" for n in listed.items)
    review = client.AuthorizationV1Api(token_client(api_client, admin_token)).create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(verb="list", resource="secrets"))))
    assert review.status.allowed is True


def test_unauthorized_raises_api_exception_with_status(api_client):
    api = client.CoreV1Api(token_client(api_client, "not-a-token"))
    with pytest.raises(ApiException) as err:
        api.list_namespace()
    assert err.value.status == 401
    body = json.loads(err.value.body)
    assert body["kind"] == "Status"
    assert body["reason"] == "Unauthorized"
    assert body["code"] == 401


def test_forbidden_raises_api_exception_with_details(api_client, nobody_token):
    api = client.CoreV1Api(token_client(api_client, nobody_token))
    with pytest.raises(ApiException) as err:
        api.read_namespaced_secret("anything", "default")
    assert err.value.status == 403
    body = json.loads(err.value.body)
    assert body["reason"] == "Forbidden"
    assert body["details"] == {"name": "anything", "kind": "secrets"}
    assert body["message"] == (
        'secrets "anything" is forbidden: User "py-nobody" cannot get resource "secrets" '
        'in API group "" in the namespace "default"'
    )
