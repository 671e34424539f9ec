"""Discover: parse a file, find its project and libraries, resolve its names, find its compile roots."""
