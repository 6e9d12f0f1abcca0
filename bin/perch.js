#!/usr/bin/env node
// The `perch` command: loads the TypeScript entry point through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
