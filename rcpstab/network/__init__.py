"""Multi-link fluid networks running RCP with App. F's router control path (thesis Sec. 5.3)."""

from .fig57 import simulate_fig57
from .fluid import NetworkRun, simulate_network
from .topology import FlowGroup, Link, Network, fig57

__all__ = ["FlowGroup", "Link", "Network", "NetworkRun", "fig57", "simulate_fig57", "simulate_network"]
