/**
 * A fixture file may declare the models it answers for (`models` at its top level). A request
 * for another model that one of its fixtures would answer is a request for a model the API
 * does not have: a typo, or a model the agent was never meant to use.
 */
import type { NeutralError, ProviderId } from '../conversation';
import { modelMatcher } from '../fixtures/patterns';
import { type Fixture, sourceOf } from '../fixtures/types';
import { anthropicError } from '../providers/anthropic-messages/errors';
import { modelNotFound } from '../providers/ollama/errors';
import { type Violation, violation } from './violation';

/** Each provider's "no such model" answer. */
function notFound(provider: ProviderId, model: string, path: string): NeutralError {
  switch (provider) {
    case 'openai':
      return {
        status: 404,
        type: 'invalid_request_error',
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        code: 'model_not_found',
      };
    case 'anthropic':
      return anthropicError(404, `model: ${model}`);
    case 'gemini': {
      const version = /^\/(v1(?:beta|alpha)?)\//.exec(path)?.[1] ?? 'v1beta';
      const method = path.includes(':streamGenerateContent') ? 'streamGenerateContent' : 'generateContent';
      return {
        status: 404,
        type: 'NOT_FOUND',
        message: `models/${model} is not found for API version ${version}, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
      };
    }
    case 'bedrock':
      return {
        status: 400,
        type: 'ValidationException',
        message: 'The provided model identifier is invalid.',
      };
    case 'ollama':
      return modelNotFound(model);
  }
}

export function checkKnownModel(
  provider: ProviderId,
  model: string,
  fixture: Fixture,
  path: string,
): Violation | undefined {
  const source = sourceOf(fixture);
  const models = source?.models;
  if (!models || models.some((m) => modelMatcher(m)(model))) return undefined;
  const declared = models.map((m) => (typeof m === 'string' ? m : `/${'regex' in m ? m.regex : m.source}/`));
  return violation(
    'known-models',
    'model',
    `the request asks for the model ${JSON.stringify(model)}, but ${source?.file ?? 'the fixture file'} declares only ${declared.join(', ')}`,
    notFound(provider, model, path),
  );
}
