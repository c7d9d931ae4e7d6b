/**
 * Writes JS arrays into columns as JSON text. `pg` sends an array parameter as a PostgreSQL array
 * literal (`{"a","b"}`), which a jsonb column refuses ("invalid input syntax for type json"), while
 * PGlite encodes it by the column's type and accepts it: code passing on the embedded database
 * would fail on PostgreSQL. This schema has no SQL array columns (lists are jsonb), so an array
 * written to a column (insert values, update sets, on-conflict sets) is always meant as JSON.
 * Arrays elsewhere (e.g. `= any(${ids})` in raw SQL) are left alone.
 */
import {
  OperationNodeTransformer,
  PrimitiveValueListNode,
  ValueListNode,
  ValueNode,
  ValuesNode,
  type ColumnUpdateNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely'

const asJson = (value: unknown): unknown => (Array.isArray(value) ? JSON.stringify(value) : value)

const valueAsJson = (node: OperationNode): OperationNode =>
  ValueNode.is(node) && Array.isArray(node.value) ? ValueNode.create(JSON.stringify(node.value)) : node

// Kysely's plugin API is a transformer class to extend; the overrides stay as small as the rule.
class JsonArraysTransformer extends OperationNodeTransformer {
  protected override transformValues(node: ValuesNode): ValuesNode {
    return ValuesNode.create(
      node.values.map((row) =>
        PrimitiveValueListNode.is(row)
          ? PrimitiveValueListNode.create(row.values.map(asJson))
          : ValueListNode.create(row.values.map(valueAsJson)),
      ),
    )
  }

  protected override transformColumnUpdate(node: ColumnUpdateNode): ColumnUpdateNode {
    const updated = super.transformColumnUpdate(node)
    return { ...updated, value: valueAsJson(updated.value) }
  }
}

/** The plugin; database.ts installs it on both dialects so they behave alike. */
export function jsonArraysPlugin(): KyselyPlugin {
  const transformer = new JsonArraysTransformer()
  return {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => transformer.transformNode(args.node),
    transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
  }
}
