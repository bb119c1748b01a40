package grasp.schema;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.storageengine.api.TransactionIdStore;

/**
 * Keeps the last computed schema per database, valid until the next committed transaction. Procedure
 * classes are instantiated per call, so the cache has to live in a static holder; it is bounded by the
 * number of databases.
 */
public final class SchemaCache {

    private record Entry(long lastTxId, GraphSchema schema) {}

    private static final Map<String, Entry> ENTRIES = new ConcurrentHashMap<>();

    private SchemaCache() {}

    public static GraphSchema get(GraphDatabaseService db, Transaction tx) {
        long lastTxId = ((GraphDatabaseAPI) db)
                .getDependencyResolver()
                .resolveDependency(TransactionIdStore.class)
                .getLastCommittedTransactionId();
        Entry entry = ENTRIES.get(db.databaseName());
        if (entry != null && entry.lastTxId() == lastTxId) {
            return entry.schema();
        }
        GraphSchema schema = new SchemaReader(tx).read();
        ENTRIES.put(db.databaseName(), new Entry(lastTxId, schema));
        return schema;
    }
}
