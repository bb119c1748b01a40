package dev.grasp.gds;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Static checks of target/open-gds-VERSION.jar: what is bundled, relocated and merged. */
class OpenGdsJarContentIT {

    private static Path jar;
    private static String prefixPath;

    @BeforeAll
    static void locateJar() {
        jar = Path.of(System.getProperty("grasp.gds.jar"));
        prefixPath = System.getProperty("grasp.gds.shadePrefix").replace('.', '/') + "/";
        assertThat(jar).isRegularFile();
    }

    private static List<String> entries() throws IOException {
        try (JarFile jf = new JarFile(jar.toFile())) {
            return jf.stream().map(ZipEntry::getName).toList();
        }
    }

    private static String read(String entry) throws IOException {
        try (JarFile jf = new JarFile(jar.toFile())) {
            ZipEntry e = jf.getEntry(entry);
            assertThat(e).as(entry).isNotNull();
            try (InputStream in = jf.getInputStream(e)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
    }

    @Test
    void onlyGdsClassesAndRelocatedThirdPartyClasses() throws IOException {
        List<String> classes = entries().stream().filter(n -> n.endsWith(".class")).toList();
        assertThat(classes).hasSizeGreaterThan(10_000);
        assertThat(classes)
                .as("every class is GDS's own or relocated; nothing of Neo4j's own is bundled")
                .allMatch(n -> n.startsWith("org/neo4j/gds/") || n.startsWith(prefixPath));
        assertThat(classes).anyMatch(n -> n.startsWith(prefixPath + "com/carrotsearch/hppc/"));
        assertThat(classes).anyMatch(n -> n.startsWith(prefixPath + "org/eclipse/collections/"));
        assertThat(classes).noneMatch(n -> n.startsWith("scala/"));
    }

    @Test
    void noSignaturesNoModuleInfo() throws IOException {
        assertThat(entries())
                .noneMatch(n -> n.matches("META-INF/[^/]+\\.(SF|DSA|RSA|EC)"))
                .noneMatch(n -> n.endsWith("module-info.class"))
                .noneMatch(n -> n.startsWith("META-INF/versions/"));
    }

    @Test
    void serviceFilesAreMergedAndRelocated() throws IOException {
        String extensions = read("META-INF/services/org.neo4j.kernel.extension.ExtensionFactory");
        // opengds-extension, core, edition-api, cypher-aggregation, progress-tracking, open-write-services
        assertThat(extensions.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count())
                .isGreaterThanOrEqualTo(6);
        assertThat(extensions).contains("org.neo4j.gds.");
        assertThat(read("META-INF/services/org.neo4j.configuration.SettingsDeclaration")).contains("org.neo4j.gds.");
        assertThat(read("META-INF/services/org.neo4j.gds.LicensingServiceBuilder")).contains("org.neo4j.gds.");

        List<String> services = entries().stream().filter(n -> n.startsWith("META-INF/services/")).toList();
        assertThat(services).noneMatch(n -> n.startsWith("META-INF/services/org.eclipse."));
        String ecFactory = "META-INF/services/" + prefixPath.replace('/', '.')
                + "org.eclipse.collections.api.factory.list.MutableListFactory";
        assertThat(services).contains(ecFactory);
        assertThat(read(ecFactory).trim()).startsWith(prefixPath.replace('/', '.') + "org.eclipse.collections.");
    }

    @Test
    void buildInfoIsGds() throws IOException {
        Properties info = new Properties();
        info.load(new java.io.StringReader(read("META-INF/info.properties")));
        assertThat(info.getProperty("Implementation-Version")).isEqualTo(System.getProperty("grasp.gds.version"));
        Properties grasp = new Properties();
        grasp.load(new java.io.StringReader(read("META-INF/grasp/open-gds.properties")));
        assertThat(grasp.getProperty("gds.version")).isEqualTo(System.getProperty("grasp.gds.version"));
        assertThat(Files.size(jar)).isLessThan(60L * 1024 * 1024);
    }
}
