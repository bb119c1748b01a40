// The text branch's reads of a loaded SKB. Values are $parameters; {{label}} and {{type}} are identifiers,
// filled only by grasp_agent.cypher_queries.fill_identifiers (schema alphabet, backtick-quoted).

// name: field_page
// One page of a label's nodes in id order: name, the type's text fields in schema order, the document and
// the stored name and document embeddings (so that building the dense indexes need not embed them again).
MATCH (n:{{label}})
WHERE $after IS NULL OR n.id > $after
RETURN n.id AS id, n.name AS name, [field IN $fields | n[field]] AS values, n.doc AS doc,
       n.doc_embedding AS doc_vector, n.name_embedding AS name_vector
ORDER BY n.id
LIMIT $limit;

// name: relation_names
// A relation field: names of the neighbours over one relation type, either direction, each neighbour once,
// most specific first (fewest relationships, then name), at most $limit.
UNWIND $ids AS node_id
MATCH (n:{{label}} {id: node_id})
RETURN node_id,
       COLLECT { MATCH (n)-[:{{type}}]-(m)
                 WITH DISTINCT m
                 RETURN m.name ORDER BY COUNT { (m)--() }, m.name LIMIT $limit } AS names;
