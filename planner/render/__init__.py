"""planner.render"""
