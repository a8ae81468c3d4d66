# -*- coding: latin-1 -*-
"""Café au lait."""


def café_name():
    return "crème"


def plain():
    return 1
