"""planner.cli"""
