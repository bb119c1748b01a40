package grasp.schema;

import grasp.cypher.CypherIdentifier;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;

/** {@code grasp.schema()} and {@code grasp.schema.validatePath(...)}; the logic lives in plain classes. */
public final class SchemaProcedures {

    @Context
    public GraphDatabaseService db;

    @Context
    public Transaction tx;

    public static final class SchemaResult {
        @Description("Node labels with node counts: [{label, count}].")
        public final List<Map<String, Object>> labels;

        @Description("Relationship types with relationship counts: [{type, count}].")
        public final List<Map<String, Object>> relationshipTypes;

        @Description("Every (source label)-[type]->(target label) that occurs, in stored direction: [{source, type, target, count}].")
        public final List<Map<String, Object>> patterns;

        @Description("Labels and relationship types that occur but whose names fail " + CypherIdentifier.RULE
                + "; no grasp procedure accepts them: [{kind: 'label'|'relationshipType', name, count}].")
        public final List<Map<String, Object>> unusable;

        SchemaResult(GraphSchema schema) {
            this.labels = schema.labelsAsMaps();
            this.relationshipTypes = schema.relationshipTypesAsMaps();
            this.patterns = schema.patternsAsMaps();
            this.unusable = schema.unusableAsMaps();
        }
    }

    public static final class PathValidationResult {
        @Description("True when every label, relationship type and hop occurs in the graph.")
        public final boolean valid;

        @Description("One message per problem, naming the bad value and what is allowed.")
        public final List<String> errors;

        @Description("Per hop, the number of relationships between the two labels counted in both directions.")
        public final List<Long> hopCounts;

        PathValidationResult(PathValidator.Outcome outcome) {
            this.valid = outcome.valid();
            this.errors = outcome.errors();
            this.hopCounts = outcome.hopCounts();
        }
    }

    @Procedure(name = "grasp.schema", mode = Mode.READ)
    @Description("grasp.schema() - labels, relationship types and the (source, target) label pairs each type connects, "
            + "with counts. Read from the count store where that is exact; cached until the next write. Only names "
            + "matching " + CypherIdentifier.RULE + " are usable: a label or type that fails it is left out of labels, "
            + "relationshipTypes and patterns and listed in unusable instead.")
    public Stream<SchemaResult> schema() {
        return Stream.of(new SchemaResult(SchemaCache.get(db, tx)));
    }

    @Procedure(name = "grasp.schema.validatePath", mode = Mode.READ)
    @Description("grasp.schema.validatePath(labels, relTypes) - checks that a typed path occurs in the graph; "
            + "hops are undirected. labels has one more element than relTypes. Every name must match "
            + CypherIdentifier.RULE + ".")
    public Stream<PathValidationResult> validatePath(
            @Name(value = "labels", description = "Node labels along the path, e.g. ['Disease', 'Phenotype'].")
                    List<String> labels,
            @Name(value = "relTypes", description = "Relationship types between consecutive labels, e.g. ['HAS_PHENOTYPE'].")
                    List<String> relTypes) {
        GraphSchema schema = SchemaCache.get(db, tx);
        return Stream.of(new PathValidationResult(new PathValidator(schema).validate(labels, relTypes)));
    }
}
