"""``python -m services.gateway``: run the gateway until SIGTERM."""

from services.gateway.server import main

if __name__ == "__main__":
    main()
