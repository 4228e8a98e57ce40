"""``python -m services.showdown``: run the showdown service until SIGTERM."""

from service_kit import run_service
from service_kit.ports import DEFAULT_PORTS
from services.showdown.server import make_spec

if __name__ == "__main__":
    port, metrics_port = DEFAULT_PORTS["showdown"]
    run_service("showdown", make_spec, default_port=port, default_metrics_port=metrics_port)
