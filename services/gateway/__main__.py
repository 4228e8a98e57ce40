"""``python -m services.gateway``: run the gateway until SIGTERM."""

# First: gRPC core reads its I/O settings when grpc is first imported.
import service_kit.grpc_core  # noqa: F401  # isort: skip
from services.gateway.server import main

if __name__ == "__main__":
    main()
