"""The fluid model on a packet scenario: the same network, flows, buffer and initial state (:func:`fluid_run`).

"Same scenario" means: the fluid model's C is the bottleneck capacity, its d0 the scenario's
round-trip propagation delay, its eta the router's, its MTU the data datagram, its T the
router's rate-estimation interval min(d0, 10 ms) (App. F), its N(t) the number of scripted
long-lived flows (piecewise constant), its buffer the scenario's drop-tail buffer, and it starts
where the router starts: R(0)/C = initial_R_over_C * eta, q(0) = 0. The packet map
(:mod:`.region`) judges this twin beside every packet run; the co-simulations
(:mod:`rcpstab.cosim`) overlay it on the packet trace.
"""

from __future__ import annotations

from ...models import get_model
from ...phaseplane.trajectory import simulate
from ..protocols.registry import model_protocol
from ..simulator.scenarios import Scenario
from ..simulator.segments import control_interval_s, flow_segments

__all__ = ["fluid_run"]


def fluid_run(scenario: Scenario, alpha: float, beta: float, t_end: float, model: str = "rcp", shift: dict | None = None):
    """Integrate the fluid ``model`` on ``scenario`` (see :mod:`rcpstab.packet.lens.fluid_twin`).

    ``shift`` maps a flow-count change time (s) to the time the fluid N changes instead (the
    flash crowd's new flows send data one handshake after they start).

    Returns
    -------
    Trajectory
        One trajectory, every integration step recorded.
    """
    segments = flow_segments(scenario, t_end)
    schedule = [((shift or {}).get(seg.start_s, seg.start_s), max(seg.n_flows, 1)) for seg in segments]
    facts = {
        "alpha": alpha,
        "beta": beta,
        "C": scenario.capacity_bps,
        "d0": scenario.rtt_s,
        "T": control_interval_s(scenario),
        "eta": scenario.eta,
        "N": schedule[0][1],
        "MTU": scenario.packet_bytes * 8,
        "buffer": scenario.effective_buffer_bytes * 8.0,
        "gamma0": scenario.initial_R_over_C * scenario.eta,
        "q0": 0.0,
    }
    model = get_model(model)
    # A user's protocol file maps these facts onto its fluid model's own names (PacketProtocol.fluid_parameters).
    protocol = model_protocol(model)
    params = dict(protocol.fluid_parameters(facts) if protocol else facts)
    initial = {key: params.pop(key) for key in ("gamma0", "q0") if key in params}
    return simulate(
        model, params, initial, t_end, n_schedule=schedule[1:], record_every=1, n_param=protocol.fluid_flows if protocol else None
    )
