"""``python -m services.table``: run the table service until SIGTERM."""

from service_kit import run_service
from service_kit.ports import DEFAULT_PORTS
from services.table.server import make_spec

if __name__ == "__main__":
    port, metrics_port = DEFAULT_PORTS["table"]
    run_service("table", make_spec, default_port=port, default_metrics_port=metrics_port)
