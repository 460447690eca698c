import type { Config } from 'jest';

type Project = Extract<NonNullable<Config['projects']>[number], object>;

export const root: string;
export const fromSource: Required<Pick<Project, 'transform' | 'runtime' | 'moduleNameMapper'>>;
export const environment: { testEnvironment: string; setupFilesAfterEnv: string[] };
export const preset: typeof environment & Required<Pick<Project, 'testRunner' | 'fakeTimers'>>;
export const ENVIRONMENT_PRAGMA: string;
