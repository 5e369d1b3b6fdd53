#!/usr/bin/env python3
"""
Completes package-lock.json with the optional, platform-specific packages the registry mirror of this
workplace does not serve (e.g. @msgpackr-extract/*-darwin-arm64@3.0.7 answers 404 here). npm leaves
them out of the lock it writes, and `npm ci` then refuses the lock as out of sync. Each missing entry
is recorded as optional with the os/cpu its name states, so `npm ci` skips it on this platform exactly
as it would with a complete lock. Run after `npm install` changes the lock: python3 scripts/complete-lockfile.py
"""
import json, re, sys

OS_NAMES = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'openbsd', 'netbsd', 'sunos', 'aix']
CPU_NAMES = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'wasm32', 'mips64el']

def platform_of(name):
    base = name.split('/')[-1]
    parts = re.split(r'[-_]', base)
    os_found = next((p for p in parts if p in OS_NAMES), None)
    cpu_found = next((p for p in parts if p in CPU_NAMES), None)
    return os_found, cpu_found

path = sys.argv[1] if len(sys.argv) > 1 else 'package-lock.json'
lock = json.load(open(path))
packages = lock['packages']
added = []
for key, entry in list(packages.items()):
    for name, version in (entry.get('optionalDependencies') or {}).items():
        if f'node_modules/{name}' in packages:
            continue
        nested = f'{key}/node_modules/{name}' if key else f'node_modules/{name}'
        if nested in packages:
            continue
        os_found, cpu_found = platform_of(name)
        if os_found is None and cpu_found is None:
            continue  # not a platform package: leave npm's own verdict
        record = {'version': version, 'optional': True}
        if cpu_found: record['cpu'] = [cpu_found]
        if os_found: record['os'] = [os_found]
        packages[f'node_modules/{name}'] = record
        added.append(f'{name}@{version}')
lock['packages'] = dict(sorted(packages.items(), key=lambda kv: (kv[0] != '', kv[0])))
json.dump(lock, open(path, 'w'), indent=2)
open(path, 'a').write('\n')
print(f'added {len(added)} platform entries')
