"""``python -m services.lobby``: run the lobby service until SIGTERM."""

from service_kit import run_service
from service_kit.ports import DEFAULT_PORTS
from services.lobby.server import make_spec

if __name__ == "__main__":
    port, metrics_port = DEFAULT_PORTS["lobby"]
    run_service("lobby", make_spec, default_port=port, default_metrics_port=metrics_port)
