"""ER-PI: a user's own protocol for rcpstab, in one file (``rcpstab map --model examples/protocols/erpi.py``).

An explicit-rate router that stamps one rate r for its n_src flows, moved by a proportional term on
the rate mismatch and an integral term on the queue b, with no multiplicative gain (unlike RCP's
rate law, which scales its step by R):

    dr/dt = (kappa_r * (mu - n_src * r(t - tau)) - kappa_q * b / tau) / (n_src * tau),   r >= 0
    db/dt = n_src * r(t - tau) - mu,                                                     b >= 0

Parameters (its own names, none of RCP's): gains kappa_r and kappa_q (dimensionless), capacity mu
(bit/s), round trip tau (s), flows n_src, each with its domain; the queue is judged in units of
mu*tau. Any of them can be swept by the phase plane: ``--param tau=0.05,0.2``. Linearized about r = mu/n_src, b = 0 and written in
lambda = s*tau, the loop is lambda**2 + (kappa_r*lambda + kappa_q)*exp(-lambda) = 0: the same
characteristic equation as RCP's, so its exact region is thesis Fig. 5.2's bell
(kappa_r = w sin w, kappa_q = w**2 cos w), which the tests use as an independent check.

The file also defines ER-PI's packet router, ``PACKET_PROTOCOL``: RCP's data path (the port stamps
its rate register on every packet, R-TCP senders pace at it) with ER-PI's own controller, so
``rcpstab map --method packet --model erpi.py`` and ``rcpstab cosim --model erpi.py`` run it packet
by packet beside its fluid model.
"""

from types import SimpleNamespace

import sympy as sp

from rcpstab.models.spec import Clamp, ModelSpec, t
from rcpstab.models.symbols import gamma0, q0
from rcpstab.packet.protocols.base import NS_PER_MS, NS_PER_S, PacketProtocol, PortService
from rcpstab.runtime.validation import Domain

kappa_r, kappa_q = sp.symbols("kappa_r kappa_q", positive=True)
mu = sp.Symbol("mu", positive=True)  # link capacity, bit/s
tau = sp.Symbol("tau", positive=True)  # round-trip time, s
n_src = sp.Symbol("n_src", positive=True)  # flows sharing the link

r = sp.Function("r")
b = sp.Function("b")

MODEL = ModelSpec(
    name="erpi",
    title="ER-PI explicit-rate controller (a user protocol: examples/protocols/erpi.py)",
    states=(r, b),
    rhs=(
        (kappa_r * (mu - n_src * r(t - tau)) - kappa_q * b(t) / tau) / (n_src * tau),
        n_src * r(t - tau) - mu,
    ),
    parameters={kappa_r: 0.4, kappa_q: 0.2, mu: 100e6, tau: 0.1, n_src: 20},
    equilibrium={r: mu / n_src, b: sp.Integer(0)},
    loop_parameters=(kappa_r, kappa_q),
    time_scale=tau,
    gamma=r(t) / mu,
    queue=b(t),
    initial_state={r: gamma0 * mu, b: q0},
    clamps=(Clamp(r), Clamp(b)),
    queue_scale=mu * tau,  # the queue is judged in bandwidth-delay products
    capacity=mu,  # gamma = r/mu: the rate as a share of the link
    flows=n_src,  # what a change in the number of flows sets (the packet scenarios' N(t))
    domains={
        kappa_r: Domain("kappa_r", 0.0, low_open=True),
        kappa_q: Domain("kappa_q", 0.0, low_open=True),
        mu: Domain("capacity mu", 0.0, low_open=True, unit="bit/s"),
        tau: Domain("round trip tau", 0.0, low_open=True, unit="s"),
        n_src: Domain("flows n_src", 1.0),
    },
)


class ErpiPacket(PacketProtocol):
    """ER-PI's router on RCP's data path, its controller once per interval T = min(tau, 10 ms).

    The router does not know n_src. It steps the fluid law with n = max(y, eta C) / r in its place,
    the flow count at the fixed point (y = eta C = n_src r), so the two laws share their fixed
    point and their linearization there (the bracket below is 0 at the fixed point):
    r <- r + T (kappa_r (eta C - y) - kappa_q q / tau) / (max(n, 1) tau), r in [1 byte/ms, C].
    Away from it they differ: from a low start r grows geometrically, not linearly as in the fluid
    model. Each flow gets eta C / n_src at the receivers. (Measured on fig5.3: n = y / r alone
    overshoots at start-up, when y still lags r by an RTT, and fills the buffer; n = eta C / r
    alone is too small when r overshoots, and at kappa_r = 1.1, kappa_q = 0.2 the loop then
    oscillates with R/C between 0.10 and 0.40 where the fluid model and this rule settle.)
    """

    name = "erpi"  # the model's name: the registry's key
    sender = "rtcp"
    header_bytes = 12
    datapath = "rcp"
    fluid_flows = "n_src"

    def make_controller(self, link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu):
        capacity = link.capacity_bps / 8000  # bytes/ms, the rate register's unit
        return SimpleNamespace(
            capacity=capacity,
            eta=eta,
            kappa_r=alpha,
            kappa_q=beta,
            tau_ms=avg_rtt_s * 1e3,
            rate=initial_R_over_C * eta * capacity,
            interval_ns=int(round(min(avg_rtt_s, 0.01) * NS_PER_S)),
        )

    def initial_writes(self, sim, li, ctrl):
        sim.set_registers(li, rate=int(round(ctrl.rate)))

    def service(self, sim, li, ctrl, tr_ns):
        registers = sim.registers(li)
        y = registers["input_bytes"] * NS_PER_MS / tr_ns  # bytes/ms
        flows = max(max(y, ctrl.eta * ctrl.capacity) / ctrl.rate, 1.0)
        push = ctrl.kappa_r * (ctrl.eta * ctrl.capacity - y) - ctrl.kappa_q * registers["queue_bytes"] / ctrl.tau_ms
        ctrl.rate = min(max(ctrl.rate + (tr_ns / NS_PER_MS) * push / (flows * ctrl.tau_ms), 1.0), ctrl.capacity)
        sim.set_registers(li, rate=int(round(ctrl.rate)), input_bytes=0, rtt_sum=0, rtt_count=0)
        return PortService(ctrl.interval_ns, ctrl.rate / ctrl.capacity, y / ctrl.capacity, registers)

    def initial_interval_ns(self, ctrl):
        return ctrl.interval_ns

    def fluid_parameters(self, facts):
        """ER-PI's names for the scenario: mu is the target eta*C (its fixed point fills the link to it)."""
        target = facts["eta"] * facts["C"]
        return {
            "kappa_r": facts["alpha"],
            "kappa_q": facts["beta"],
            "mu": target,
            "tau": facts["d0"],
            "n_src": facts["N"],
            "gamma0": facts["gamma0"] * facts["C"] / target,
            "q0": facts["q0"],
        }


PACKET_PROTOCOL = ErpiPacket()
