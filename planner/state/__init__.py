"""State: the local record of what the planner manages (file format, lock, atomic store)."""
