"""planner.apply"""
