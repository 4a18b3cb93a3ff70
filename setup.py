"""C extensions (the packet simulator and the flow simulator); all package metadata lives in pyproject.toml."""

from setuptools import Extension, setup

PACKET = "rcpstab/packet/csrc/"
FLOWS = "rcpstab/fct/csrc/"
COMMON = "rcpstab/csrc/"  # domains.h: the integer arguments both extensions check against the one table

setup(
    ext_modules=[
        Extension(
            "rcpstab.packet._datapath",
            sources=[PACKET + "module.c", PACKET + "sim.c", PACKET + "port_ops.c", PACKET + "events.c"],
            depends=[
                PACKET + h
                for h in (
                    "rcp_header.h",
                    "rcp_port.h",
                    "sim.h",
                    "xcp_header.h",
                    "xcp_port.h",
                    "rcpac_port.h",
                    "control.h",
                    "port_ops.h",
                    "events.h",
                    "rtcp_host.h",
                )
            ]
            + [COMMON + "domains.h"],
            include_dirs=[COMMON],
            extra_compile_args=["-O2", "-std=c11"],
        ),
        Extension(
            "rcpstab.fct._flows",
            # the flow simulator shares the event queue and the R-TCP host with the packet simulator
            sources=[FLOWS + "flows_module.c", FLOWS + "flows.c", PACKET + "events.c"],
            depends=[FLOWS + "flows.h", COMMON + "domains.h"]
            + [
                PACKET + h
                for h in ("rcp_header.h", "rcp_port.h", "events.h", "rtcp_host.h", "control.h", "xcp_port.h", "xcp_header.h")
            ],
            include_dirs=[PACKET, COMMON],
            extra_compile_args=["-O2", "-std=c11"],
        ),
    ]
)
