/**
 * Catalog checks before any upstream work: the slug exists and is not retired, the model can be
 * called with this protocol, the key's allowlist admits it, the key's group may route it, and the request asks only for what the
 * model can do (capability gates).
 */
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { assertModelAllowed } from '../auth/model-allowlist';
import type { Catalog } from '../catalog/catalog';
import type { CatalogModel, Capability } from '../catalog/model';
import { GatewayError } from '../errors/gateway-error';
import type { ContentPart } from '../ir/parts';
import type { Protocol } from '../ir/protocol';
import type { IrRequest } from '../ir/request';
import type { TranslationWarning } from '../ir/warning';
import { CODECS } from './codec-registry';

const displayName = (protocol: Protocol): string => CODECS[protocol].inbound.displayName;

export function resolveModel(catalog: Catalog, slug: string, protocol: Protocol, key: AuthenticatedKey): CatalogModel {
  const model = catalog.find(slug);
  if (!model || model.retired) {
    throw new GatewayError(
      'unsupported_model',
      model ? `model ${slug} is retired` : `model ${slug} is not supported; GET /v1/models lists the models`,
      { param: 'model' },
    );
  }
  // After alias resolution: the allowlist names canonical slugs.
  assertModelAllowed(key, model.id);
  if (model.kind !== 'chat' || !model.protocols.includes(protocol)) {
    const shapes = model.protocols.map(displayName).join(', ');
    throw new GatewayError(
      'protocol_unavailable',
      `model ${slug} cannot be called with the ${displayName(protocol)} protocol${shapes ? `; it accepts: ${shapes}` : model.kind === 'image' ? '; use /v1/images/generations' : '; use /v1/tasks/submit'}`,
      { param: 'model' },
    );
  }
  if (key.groupFamily !== null && key.groupFamily !== model.family) {
    throw new GatewayError('no_available_account', `no available account: group ${key.groupName} does not route model ${slug}`);
  }
  return model;
}

function hasImage(parts: readonly ContentPart[]): boolean {
  return parts.some(
    (part) =>
      part.type === 'image' || part.type === 'document' || (part.type === 'tool_result' && part.content.some((c) => c.type === 'image')),
  );
}

function requireCapability(model: CatalogModel, capability: Capability, feature: string, param: string): void {
  if (!(model.capabilities as string[]).includes(capability)) {
    throw new GatewayError('unsupported_feature', `model ${model.id} does not support ${feature}`, { param });
  }
}

/**
 * A cap above the model's published maximum is lowered to it in the IR, the thinking budget kept
 * below it (Claude Code asks 32,000 with a 31,999 budget of every model). Only a translated call
 * reads the IR: native pass-through forwards the client's body, and the provider keeps its verdict.
 */
function clampOutputCap(model: CatalogModel, request: IrRequest, maxTokensField: string): TranslationWarning[] {
  const max = request.sampling.maxOutputTokens;
  if (max === undefined || max <= model.maxOutputTokens) return [];
  request.sampling.maxOutputTokens = model.maxOutputTokens;
  let budgetNote = '';
  const budget = request.reasoning?.budgetTokens;
  if (request.reasoning && budget !== undefined && budget >= model.maxOutputTokens) {
    request.reasoning.budgetTokens = model.maxOutputTokens - 1;
    budgetNote = `, the thinking budget to ${model.maxOutputTokens - 1}`;
  }
  return [
    {
      field: maxTokensField,
      message: `${max} exceeds the maximum output of model ${model.id}; lowered to ${model.maxOutputTokens}${budgetNote}`,
    },
  ];
}

/** Throws 400 for what the model cannot do; returns warnings for what is dropped or lowered instead. */
export function checkCapabilities(model: CatalogModel, request: IrRequest, maxTokensField: string): TranslationWarning[] {
  const warnings: TranslationWarning[] = [];
  if (request.turns.some((turn) => hasImage(turn.parts))) requireCapability(model, 'vision', 'image input (vision)', 'messages');
  if (request.tools.length > 0) requireCapability(model, 'tool_use', 'tools (tool_use)', 'tools');
  if (request.responseFormat?.type === 'json_schema')
    requireCapability(model, 'json_schema', 'structured output (json_schema)', 'response_format');
  if (request.sampling.logprobs) requireCapability(model, 'logprobs', 'logprobs', 'logprobs');
  warnings.push(...clampOutputCap(model, request, maxTokensField));
  const temperature = request.sampling.temperature;
  if (model.fixedTemperature !== undefined && temperature !== undefined && temperature !== model.fixedTemperature) {
    warnings.push({
      field: 'temperature',
      message: `model ${model.id} accepts only temperature ${model.fixedTemperature}; the value ${temperature} was dropped`,
    });
    request.sampling.temperature = undefined;
  }
  if (request.reasoning && !request.reasoning.disabled && !(model.capabilities as string[]).includes('thinking')) {
    warnings.push({ field: 'reasoning', message: `model ${model.id} does not reason; the reasoning settings were dropped` });
    request.reasoning = undefined;
  }
  return warnings;
}
