package grasp.meta;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** Version facts stamped into the jar by Maven resource filtering. */
public final class BuildInfo {
    public static final String VERSION = load().getProperty("version", "unknown");

    private BuildInfo() {}

    private static Properties load() {
        Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/grasp/build.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read grasp/build.properties from the plugin jar", e);
        }
        return properties;
    }
}
