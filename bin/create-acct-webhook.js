#!/usr/bin/env node
import('../dist/create.js');
