"""The tests run services exactly as the main job does: see ``services.launcher``."""

from services.launcher import ServiceProcess

__all__ = ["ServiceProcess"]
