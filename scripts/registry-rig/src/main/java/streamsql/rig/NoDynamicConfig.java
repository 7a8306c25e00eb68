package streamsql.rig;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.ArrayList;
import javax.enterprise.inject.Produces;
import javax.inject.Singleton;

/**
 * Stands in for the build step of apicurio-common-app-components-config-index
 * (its -deployment module is not on Maven Central): an empty list of
 * properties that can be changed at run time.
 */
public class NoDynamicConfig {
    @Produces
    @Singleton
    DynamicConfigPropertyList dynamicConfigPropertyList() {
        return new DynamicConfigPropertyList(new ArrayList<>());
    }
}
