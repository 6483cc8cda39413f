"""Halo workbook tools: chapter data, expressions, answers and generated C++."""
