/**
 * Whether a cell is a native pass-through (the model's own protocol). Nothing is translated there, so
 * the gateway must not report translation warnings (issue 12, defect 9). The stack serves the default
 * catalog, whose entries say which protocols are native to each model.
 */
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';

export function isNativePassThrough(protocol: string, model: string): boolean {
  return DEFAULT_CATALOG.some((entry) => entry.id === model && (entry.nativeProtocols as readonly string[]).includes(protocol));
}
