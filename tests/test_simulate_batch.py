"""rcpstab.simulate over a batch of parameters: each trajectory is the run of its own parameters alone, and
what cannot be batched (the delays) or does not line up is one InputError."""

import numpy as np
import pytest

import rcpstab
from rcpstab.errors import InputError


def test_a_batch_is_its_runs_one_by_one():
    batch = rcpstab.simulate(
        "rcp",
        0.6,
        0.3,
        rtts=30,
        C=[10e6, 1e9, 40e9],
        N=[10, 3, 700],
        gamma0=[0.05, 0.5, 0.002],
        q0=[0.0, 1e5, 0.0],
        record_every=5,
    )
    for i, (C, N, g, q) in enumerate(zip([10e6, 1e9, 40e9], [10, 3, 700], [0.05, 0.5, 0.002], [0.0, 1e5, 0.0])):
        one = rcpstab.simulate("rcp", 0.6, 0.3, rtts=30, C=C, N=N, gamma0=g, q0=q, record_every=5)
        assert np.allclose(batch.gamma[:, i], one.gamma[:, 0], rtol=1e-12, atol=0)
        assert np.allclose(batch.queue[:, i], one.queue[:, 0], rtol=1e-12, atol=1e-6)
    assert batch.to_dict()["network"]["N"] == [10.0, 3.0, 700.0]


def test_record_every_keeps_every_kth_step():
    every, dense = (rcpstab.simulate("rcp", 0.4, 0.2, rtts=10, gamma0=0.5, q0=0.0, record_every=k) for k in (4, 1))
    assert np.array_equal(every.gamma[:, 0], dense.gamma[::4, 0])


@pytest.mark.parametrize(
    "kwargs, named",
    [
        (dict(d0=[0.1, 0.2], gamma0=[0.1, 0.1], q0=0.0), "d_0 must be a single value"),
        (dict(C=[1e7, 1e8, 1e9], gamma0=[0.1, 0.1], q0=0.0), "one value per trajectory"),
        (dict(C=[1e7, 1e8]), "give both"),
        (dict(record_every=0), "record_every = 0"),
    ],
)
def test_bad_batches_are_one_line(kwargs, named):
    with pytest.raises(InputError, match=named):
        rcpstab.simulate("rcp", 0.4, 0.2, rtts=5, **kwargs)
