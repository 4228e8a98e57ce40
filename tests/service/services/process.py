"""The tests run services exactly as the main job does: see ``devroom.launcher``."""

from devroom.launcher import ServiceProcess

__all__ = ["ServiceProcess"]
