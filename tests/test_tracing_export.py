"""Exporting from the commands (signoff.cli.otlp) as the OpenTelemetry environment configures it:
the service named by OTEL_RESOURCE_ATTRIBUTES as by OTEL_SERVICE_NAME, and a protocol other than
OTLP/HTTP's protobuf told before any work."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.test_tracing import _exported, _Receiver, _research_exporting_to, _value
from tests.test_tracing import shop as shop  # (the workshop fixture, used here)

PORTS = range(22160, 22200)
"""Where the receiver may listen (this area's ports)."""


@pytest.fixture
def receiver() -> Iterator[ThreadingHTTPServer]:
    """An OTLP/HTTP receiver on loopback, on the first free port of `PORTS`."""
    for port in PORTS:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), _Receiver)
        except OSError:
            continue
        break
    else:
        pytest.fail(f"No port free in {PORTS}.")
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_the_service_named_in_otel_resource_attributes_is_the_spans(
    tmp_path: Path, receiver: ThreadingHTTPServer,
) -> None:
    """A service named, and an environment given, in OTEL_RESOURCE_ATTRIBUTES (as the
    conventions let it be named) are on the exported spans' resource (signoff's own default
    name, "signoff …", was put over the name given)."""
    _research_exporting_to(
        tmp_path, f"http://127.0.0.1:{receiver.server_port}",
        OTEL_RESOURCE_ATTRIBUTES="service.name=notes-research,deployment.environment=prod",
        OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf", OTEL_SERVICE_NAME="")
    resources = [{a.key: _value(a.value) for a in resource.attributes}
                 for resource, _ in _exported(receiver)]
    assert resources
    assert {(r["service.name"], r["deployment.environment"]) for r in resources} == {
        ("notes-research", "prod")}


@pytest.mark.parametrize(("variable", "protocol"), [
    ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
    ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
])
def test_a_protocol_other_than_otlp_http_protobuf_is_refused_before_any_work(
    shop: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, variable: str, protocol: str,
) -> None:
    """OTEL_EXPORTER_OTLP_PROTOCOL (or its traces' own) asking for gRPC or JSON is told at once,
    exit 2 (it was not read: the spans went as OTLP/HTTP protobuf to a gRPC port, and the end
    said only that they could not be sent)."""
    from signoff.cli.failures import Failure
    from signoff.cli.otlp import export_traces

    for name in ("OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
    monkeypatch.setenv(variable, protocol)
    with pytest.raises(Failure) as refused:
        export_traces(shop.app)
    assert str(refused.value) == (
        f"{variable} is {protocol!r}, but signoff sends traces over OTLP/HTTP with protobuf "
        "alone: set it to http/protobuf (and the endpoint to the collector's OTLP/HTTP port, 4318 "
        "by default), or unset it.")
    assert refused.value.exit_code == 2
