package grasp.meta;

import org.neo4j.procedure.Description;
import org.neo4j.procedure.UserFunction;

/** {@code RETURN grasp.version()}: lets clients check which plugin build the server runs. */
public final class VersionFunction {

    @UserFunction(name = "grasp.version")
    @Description("grasp.version() - the version of the grasp procedures plugin loaded in this server.")
    public String version() {
        return BuildInfo.VERSION;
    }
}
