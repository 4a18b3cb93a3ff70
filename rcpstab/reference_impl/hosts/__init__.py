"""End hosts: what the senders offer to the network (flow sizes and arrival processes, :mod:`.flow_traffic`)."""
