#!/usr/bin/env python3
"""Writes test/vectors/difflib-ratios.json: Python's difflib ratios, the reference's similarity measure.

Run from the repository root: python3 scripts/make-difflib-vectors.py
"""
import json
import random
from difflib import SequenceMatcher

random.seed(20261122)
pairs = [('password', 'testuser@test.org'), ('password', 'test user'), ('testuser123', 'test user'),
         ('correcthorse', 'authsvc.test'), ('', 'abc'), ('abc', ''), ('aaaa', 'aaaa'), ('ß-straße', 'strasse'),
         ('😀abc😀', 'abc'), ('pässwörd', 'passwort')]
alphabet = 'abcdefgh tuvwxyz0123.@-_AÉéßü😀'
for i in range(250):
    la = random.randint(0, 40)
    lb = random.randint(0, 60)
    if i % 25 == 0:
        lb = random.randint(200, 400)  # autojunk applies when the second string has 200 or more characters
    a = ''.join(random.choice(alphabet[:random.randint(3, len(alphabet))]) for _ in range(la))
    b = ''.join(random.choice(alphabet[:random.randint(3, len(alphabet))]) for _ in range(lb))
    pairs.append((a, b))
out = [{'a': a, 'b': b, 'ratio': SequenceMatcher(None, a, b).ratio() * 100} for a, b in pairs]
with open('test/vectors/difflib-ratios.json', 'w') as f:
    json.dump(out, f, ensure_ascii=False, indent=0)
