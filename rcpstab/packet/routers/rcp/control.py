"""The router's control path: App. F lines 1-17, run once per rate-estimation interval Tr.

Rates are bytes/ms and times ms, as in App. F. The control path keeps ``rcp_rate`` as a
real number; the data path's ``rate`` register holds it rounded to the wire's integer
bytes/ms.

Two RTT estimators (:data:`RTT_ESTIMATORS`, the controller's ``rtt_estimator``):

- ``"appf"`` (default): App. F lines 2-7, eqs. 5.16-5.17: the interval's mean header RTT enters
  a moving average with gain Tr/avg_rtt, aged more slowly when the sample is smaller.
- ``"ns2"``: the estimator of ns-2's RCP module, the code behind the thesis' packet figures
  (Fig. 5.3, Ch. 4), which the thesis calls "RCP's original RTT estimation algorithm"
  (Sec. 5.3: ``d = theta*rtt_p + (1 - theta)*d`` with a fixed gain theta, per packet): theta =
  :data:`NS2_RTT_GAIN` = 0.02. The control path sees the interval's n samples only through their
  mean, so the n per-packet steps are applied as one, exact when the samples are equal:
  ``d <- (1 - theta)**n d + (1 - (1 - theta)**n) avg_rtt_Tr``.

Both keep line 13's interval, Tr = min(avg_rtt, 10 ms) (ns-2's too).
"""

from __future__ import annotations

from dataclasses import dataclass

from ....errors import InputError

MAX_RATE_ESTIMATION_INTERVAL_MS = 10.0
NS2_RTT_GAIN = 0.02  # ns-2 RCP: fixed per-packet gain of the RTT moving average
MIN_RATE_MTU_FRACTION = 0.01
RATE_REGISTER_MAX = 0xFFFFFFFE  # all ones on the wire means "unspecified"


def rate_register(rate: float) -> int:
    """The rate as the data path stamps it: integer bytes/ms, at least 1 (0 is "unspecified")."""
    return min(max(int(round(rate)), 1), RATE_REGISTER_MAX)


@dataclass
class RcpController:
    """App. F control path state of one output port.

    Parameters
    ----------
    link_rate : float
        Link capacity, bytes/ms.
    alpha, beta : float
        Gains of the rate law (App. F line 8).
    eta : float
        Target utilisation; the rate is capped at ``eta * link_rate``.
    rate : float
        Current ``rcp_rate``, bytes/ms (its initial value is the initial condition R(0)).
    avg_rtt : float
        Current ``avg_rtt``, ms (initial value: the router's prior, e.g. the propagation RTT).
    mtu : int
        MTU of the link, bytes; ``MIN_RATE = 0.01 * mtu / avg_rtt``.
    rtt_estimator : {"appf", "ns2"}
        How ``avg_rtt`` follows the header RTTs (module docstring).
    """

    link_rate: float
    alpha: float
    beta: float
    eta: float
    rate: float
    avg_rtt: float
    mtu: int = 1500
    rtt_estimator: str = "appf"

    def __post_init__(self) -> None:
        if self.rtt_estimator not in RTT_ESTIMATORS:
            raise InputError(f"rtt_estimator={self.rtt_estimator!r}: one of {', '.join(RTT_ESTIMATORS)}")
        if self.alpha <= 0:
            raise InputError(f"alpha={self.alpha} must be > 0")
        if self.beta < 0:
            raise InputError(f"beta={self.beta} must be >= 0")
        if not 0 < self.eta <= 1:
            raise InputError(f"eta={self.eta} must be in (0, 1]")
        if self.link_rate <= 0 or self.rate <= 0 or self.avg_rtt <= 0:
            raise InputError(f"link_rate={self.link_rate}, rate={self.rate} and avg_rtt={self.avg_rtt} must be > 0")

    @property
    def interval(self) -> float:
        """Line 13: the next rate-estimation interval Tr, ms."""
        return min(self.avg_rtt, MAX_RATE_ESTIMATION_INTERVAL_MS)

    def update(self, input_bytes: int, rtt_sum: int, rtt_count: int, queue_bytes: int, tr: float) -> float:
        """Lines 1-13 at the end of an interval of ``tr`` ms; returns the next Tr, ms.

        ``input_bytes``, ``rtt_sum`` (ms) and ``rtt_count`` are the data path's counters for
        the interval, ``queue_bytes`` its current queue. The caller resets the counters
        (lines 14-16) and re-arms the timer (line 17). An interval without a valid RTT
        leaves ``avg_rtt`` unchanged: line 2 would divide by zero.
        """
        input_traffic_rate = input_bytes / tr  # line 1
        if rtt_count > 0:
            avg_rtt_tr = rtt_sum / rtt_count  # line 2
            self.avg_rtt = RTT_ESTIMATORS[self.rtt_estimator](self, avg_rtt_tr, rtt_count, tr)  # lines 3-7
        target = self.eta * self.link_rate
        self.rate = self.rate * (
            1
            + (tr / self.avg_rtt) * (self.alpha * (target - input_traffic_rate) - self.beta * queue_bytes / self.avg_rtt) / target
        )  # line 8
        min_rate = MIN_RATE_MTU_FRACTION * self.mtu / self.avg_rtt
        if self.rate < min_rate:  # lines 9-12
            self.rate = min_rate
        elif self.rate > target:
            self.rate = target
        return self.interval  # line 13

    def _appf_average(self, avg_rtt_tr: float, rtt_count: int, tr: float) -> float:
        """App. F lines 3-7 (eq. 5.17): the new avg_rtt, ms."""
        if avg_rtt_tr >= self.avg_rtt:
            weight = tr / self.avg_rtt
        else:
            weight = (self.rate / self.link_rate) * (avg_rtt_tr / self.avg_rtt) * (tr / self.avg_rtt)
        return weight * avg_rtt_tr + (1 - weight) * self.avg_rtt

    def _ns2_average(self, avg_rtt_tr: float, rtt_count: int, tr: float) -> float:
        """ns-2's fixed-gain average, its ``rtt_count`` per-packet steps taken at once: the new avg_rtt, ms."""
        keep = (1.0 - NS2_RTT_GAIN) ** rtt_count
        return keep * self.avg_rtt + (1.0 - keep) * avg_rtt_tr

    def service(self, registers: dict[str, int], tr: float) -> tuple[float, dict[str, int]]:
        """One timer expiry against a port's registers: lines 1-16.

        Returns the next Tr (ms) and the register writes: the new rate and the interval
        counters cleared (lines 14-16).
        """
        next_tr = self.update(
            registers["input_bytes"], registers["rtt_sum"], registers["rtt_count"], registers["queue_bytes"], tr
        )
        writes = {"rate": rate_register(self.rate), "input_bytes": 0, "rtt_sum": 0, "rtt_count": 0}
        return next_tr, writes


RTT_ESTIMATORS = {"appf": RcpController._appf_average, "ns2": RcpController._ns2_average}
"""How the control path averages the header RTTs, by name."""
