"""planner.controlplane"""
