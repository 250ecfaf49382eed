/** connect-source */
package io.changelake.source;
