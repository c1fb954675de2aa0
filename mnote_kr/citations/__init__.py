"""citations"""
