"""Interpret: the abstract interpreter that runs a compile root as dynamo runs its bytecode."""
