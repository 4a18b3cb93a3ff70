"""End hosts: the senders' kinds and what the senders offer to the network.

:mod:`.senders` names the sender kinds; :mod:`.flow_traffic` gives flow sizes and arrival processes.
"""
