"""Tests of planner.render."""
