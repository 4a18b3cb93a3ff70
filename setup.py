"""C extension of the reference router; all package metadata lives in pyproject.toml."""
from setuptools import Extension, setup

CSRC = "rcpstab/reference_impl/csrc/"

setup(
    ext_modules=[
        Extension(
            "rcpstab.reference_impl._datapath",
            sources=[CSRC + "module.c", CSRC + "sim.c", CSRC + "port_ops.c", CSRC + "events.c"],
            depends=[CSRC + h for h in ("rcp_header.h", "rcp_port.h", "sim.h", "xcp_header.h", "xcp_port.h", "rcpac_port.h",
                                         "port_ops.h", "events.h", "rtcp_host.h")],
            extra_compile_args=["-O2", "-std=c11"],
        ),
        Extension(
            "rcpstab.reference_impl._flows",
            sources=[CSRC + "flows_module.c", CSRC + "flows.c", CSRC + "events.c"],
            depends=[CSRC + h for h in ("rcp_header.h", "rcp_port.h", "flows.h", "events.h", "rtcp_host.h")],
            extra_compile_args=["-O2", "-std=c11"],
        ),
    ]
)
