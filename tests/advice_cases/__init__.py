"""Each rule's advice checked against dynamo (tests/test_advice.py): `before.py` breaks once per class, `applied.py` is each class with its message's advice applied."""
