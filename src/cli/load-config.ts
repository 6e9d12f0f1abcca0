// Reads `.env` (if any) and the environment into a Config, or stops with one line per problem.
import { config as loadDotenv } from 'dotenv';
import { ConfigError, createConfig, type Config } from '../config.ts';

export function loadConfig(overrides: Partial<Config> = {}): Config {
  loadDotenv({ quiet: true });
  try {
    return createConfig(process.env, overrides);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`perch: cannot start, the configuration is invalid:\n${error.problems.map((p) => `  - ${p}\n`).join('')}`);
      process.exit(2);
    }
    throw error;
  }
}
