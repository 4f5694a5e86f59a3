"""planner.plan"""
