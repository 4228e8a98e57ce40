"""``python -m services.betting``: run the betting service until SIGTERM."""

from service_kit import run_service
from service_kit.ports import DEFAULT_PORTS
from services.betting.server import make_spec

if __name__ == "__main__":
    port, metrics_port = DEFAULT_PORTS["betting"]
    run_service("betting", make_spec, default_port=port, default_metrics_port=metrics_port)
