"""Fixtures for the Python client suite: the server is started by the Node test that runs
pytest (test/e2e/python-client.test.ts), which passes its kubeconfig and tokens here."""
import os
import uuid

import pytest
from kubernetes import client, config, dynamic


def _env(name):
    value = os.environ.get(name)
    if not value:
        pytest.exit(f"{name} is not set: run this suite through `npm test` (test/e2e/python-client.test.ts)", returncode=2)
    return value


@pytest.fixture(scope="session")
def kubeconfig_path():
    return _env("ORCH_PY_KUBECONFIG")


@pytest.fixture(scope="session")
def api_client(kubeconfig_path):
    """A client configured the way users do it: load_kube_config from the admin kubeconfig."""
    return config.new_client_from_config(config_file=kubeconfig_path)


@pytest.fixture(scope="session")
def server_url(api_client):
    return api_client.configuration.host


def token_client(api_client, token):
    cfg = client.Configuration()
    cfg.host = api_client.configuration.host
    cfg.ssl_ca_cert = api_client.configuration.ssl_ca_cert
    cfg.api_key = {"authorization": token}
    cfg.api_key_prefix = {"authorization": "Bearer"}
    return client.ApiClient(cfg)


@pytest.fixture(scope="session")
def admin_token():
    return _env("ORCH_PY_ADMIN_TOKEN")


@pytest.fixture(scope="session")
def nobody_token():
    return _env("ORCH_PY_NOBODY_TOKEN")


@pytest.fixture(scope="session")
def compacting_kubeconfig_path():
    """A second server whose watch history window is one second (for 410 Gone)."""
    return _env("ORCH_PY_COMPACTING_KUBECONFIG")


@pytest.fixture(scope="session")
def dyn(api_client):
    return dynamic.DynamicClient(api_client)


@pytest.fixture
def namespace(api_client):
    """A fresh namespace per test, deleted afterwards."""
    core = client.CoreV1Api(api_client)
    name = f"py-{uuid.uuid4().hex[:8]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    yield name
    core.delete_namespace(name)
