// Reads `.env` (if any) and the environment into a Config, or stops with one line per problem.
import { config as loadDotenv } from 'dotenv';
import { ConfigError, createConfig, type Config } from '../config.ts';

/** Loads `.env` into process.env (variables already set win); for commands that need no Config. */
export function loadEnvFile(): void {
  loadDotenv({ quiet: true });
}

export function loadConfig(overrides: Partial<Config> = {}): Config {
  loadEnvFile();
  try {
    return createConfig(process.env, overrides);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(
        `perch: cannot start, the configuration is invalid:\n${error.problems.map((p) => `  - ${p}\n`).join('')}`,
      );
      process.exit(2);
    }
    throw error;
  }
}
