from setuptools import setup

setup(name="geo", packages=["geo", "geo.io"])
