"""watch.Watch().stream with resource versions, timeouts, bookmarks, and 410 Gone."""
import time

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def test_watch_from_resource_version_sees_changes_in_order(api_client, namespace):
    core = client.CoreV1Api(api_client)
    start = core.list_namespaced_config_map(namespace).metadata.resource_version
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w"), data={"n": "1"}))
    core.patch_namespaced_config_map("w", namespace, {"data": {"n": "2"}})
    core.delete_namespaced_config_map("w", namespace)
    seen = []
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, namespace, resource_version=start, timeout_seconds=5):
        seen.append((event["type"], event["object"].metadata.name, (event["object"].data or {}).get("n")))
        if event["type"] == "DELETED":
            w.stop()
    assert seen == [("ADDED", "w", "1"), ("MODIFIED", "w", "2"), ("DELETED", "w", "2")]


def test_watch_ends_at_timeout_seconds(api_client, namespace):
    core = client.CoreV1Api(api_client)
    began = time.monotonic()
    events = list(watch.Watch().stream(core.list_namespaced_config_map, namespace, field_selector="metadata.name=none", timeout_seconds=1))
    elapsed = time.monotonic() - began
    assert events == []
    assert 0.9 <= elapsed < 10


def test_bookmarks_carry_only_a_resource_version(api_client, namespace):
    core = client.CoreV1Api(api_client)
    rv = core.list_namespaced_config_map(namespace).metadata.resource_version
    resp = core.list_namespaced_config_map(namespace, watch=True, allow_watch_bookmarks=True, resource_version=rv,
                                           timeout_seconds=4, _preload_content=False)
    lines = [line for line in resp.read().decode().splitlines() if line]
    import json
    events = [json.loads(line) for line in lines]
    # Asked for, a bookmark comes before the watch's deadline (1.27 sends one two seconds before it).
    bookmarks = [e for e in events if e["type"] == "BOOKMARK"]
    assert bookmarks, f"no bookmark in {lines}"
    for b in bookmarks:
        assert b["object"]["kind"] == "ConfigMap"
        assert set(b["object"]["metadata"].keys()) <= {"resourceVersion", "annotations", "creationTimestamp"}
        assert int(b["object"]["metadata"]["resourceVersion"]) >= int(rv)


def test_gone_after_compaction_then_relist(compacting_kubeconfig_path):
    api = client.CoreV1Api(config.new_client_from_config(config_file=compacting_kubeconfig_path))
    cm = api.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(generate_name="old-")))
    old = cm.metadata.resource_version
    for i in range(3):
        api.patch_namespaced_config_map(cm.metadata.name, "default", {"data": {"i": str(i)}})
    # The server keeps one second of history: once later writes push `old` out of it, a watch
    # from `old` is answered 410 Gone.
    deadline = time.monotonic() + 20
    gone = None
    while time.monotonic() < deadline:
        time.sleep(0.5)
        api.patch_namespaced_config_map(cm.metadata.name, "default", {"data": {"later": str(time.monotonic())}})
        try:
            for _ in watch.Watch().stream(api.list_namespaced_config_map, "default", resource_version=old, timeout_seconds=1):
                pass
        except ApiException as err:
            gone = err
            break
    assert gone is not None and gone.status == 410
    # A relist gives a current version to watch from.
    fresh = api.list_namespaced_config_map("default")
    assert int(fresh.metadata.resource_version) > int(old)
    events = list(watch.Watch().stream(api.list_namespaced_config_map, "default", resource_version=fresh.metadata.resource_version, timeout_seconds=1))
    assert events == []
    assert "too old resource version" in gone.reason
