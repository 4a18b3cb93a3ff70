"""The linearized RCP system of thesis eq. 5.15: eq. 5.14 without the queue clamp.

The queue may go negative, which is what the linear analysis of Sec. 5.1 assumes; so it has
no buffer either (a queue without a floor has no meaningful ceiling): no ``buffer`` parameter.
"""

from .switched import aggregate_rate_model

MODEL = aggregate_rate_model(
    "linear",
    "linearized RCP system, thesis eq. 5.15 (queue may go negative)",
    clamps=(),
)
